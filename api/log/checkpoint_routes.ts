import { z } from 'zod';
import { routeArgsParser } from '../read_mount.js';
import { RefusalError } from '../refusal_error.js';
import type { Routes } from '../routes.js';
import type { TransparencyLog } from './transparency_log.js';

export const ReceiptParams = z.object({
  seq: z.int().min(1).max(Number.MAX_SAFE_INTEGER),
});

/** Plain digits only, as on every other route: "0x1", "1e0", "+1" and "1.0" are not seq 1. */
const receiptArgs = routeArgsParser(ReceiptParams, '/log/receipt/{seq}');

/**
 * The log's signed head, its verifier key, and receipts for any entry. Receipts use the
 * newest checkpoint the log signed, so a receipt never waits for a witness.
 */
export function mountCheckpointRoutes(router: Routes, log: TransparencyLog): void {
  router.get('/log/checkpoint', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = log.servedCheckpoint().note;
  });

  router.get('/log/checkpoint/cosigned', (ctx) => {
    const cosigned = log.cosignedCheckpoint();
    if (!cosigned)
      throw RefusalError.of(
        'NOT_FOUND',
        'No witness has cosigned a checkpoint of this log yet (or none is configured): /log/checkpoint is the newest the log signed.',
      );
    ctx.type = 'text/plain; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = cosigned.note;
  });

  router.get('/log/key', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = `${log.checkpoints.vkey}\n`;
  });

  router.get('/log/receipt/:seq', (ctx) => {
    const { seq } = receiptArgs({ params: ctx.params, query: {} }) as z.output<typeof ReceiptParams>;
    const receipt = log.receipt(seq);
    if (!receipt) {
      const size = log.checkpoints.latest().size;
      throw RefusalError.of(
        'UNKNOWN_ENTRY',
        `No ledger entry has seq ${seq} yet: the newest checkpoint covers 1 to ${size}.`,
      );
    }
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = receipt;
  });
}
