import { generateKeyPairSync, sign } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { opsPerSecond } from './measure.js';
import verifyBatch, { type VerifyBatch } from './verify_worker.js';

/** Checks per task handed to a thread: what one turn of the event loop gathers under load (64 agents). */
const BATCH = 64;

/**
 * What more cores buy the act path's largest cost, the ed25519 check: the same batches of
 * signature checks verified on the main thread (the reference), and by pools of 1, 2 and
 * 4 worker threads with the main thread only handing batches over. Each ratio is a pool's
 * rate over the main thread's in the same run: a pool of n threads can reach n only on a
 * machine with n cores to spare.
 */
export async function benchVerifyAcrossCores(
  pool_sizes = [1, 2, 4],
): Promise<{ inline: number; pools: Record<number, number>; cores: number }> {
  const members = Array.from({ length: 16 }, () => generateKeyPairSync('ed25519'));
  const batch: VerifyBatch = { pubkeys: [], messages: [], signatures: [] };
  for (let i = 0; i < BATCH; i++) {
    const { publicKey, privateKey } = members[i % members.length]!;
    const message = Buffer.from(`society-sig-v1\nPOST\n/api/v1/act\nag_${i}\nnonce${i}\n${'ab'.repeat(32)}`);
    batch.pubkeys.push(Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url'));
    batch.messages.push(message);
    batch.signatures.push(sign(null, message, privateKey));
  }
  const filename = fileURLToPath(new URL('./verify_worker.js', import.meta.url));
  const pools = pool_sizes.map((threads) => ({
    threads,
    pool: new Piscina({ filename, minThreads: threads, maxThreads: threads }),
  }));
  try {
    // Several batches in flight per thread, as a loaded server would keep them.
    const tasks = pools.map(({ threads, pool }) => ({
      name: `pool_${threads}`,
      ops_per_call: BATCH * threads * 4,
      fn: async () => {
        const verified = await Promise.all(Array.from({ length: threads * 4 }, () => pool.run(batch)));
        if (verified.some((count) => count !== BATCH)) throw new Error('a signature did not verify');
      },
    }));
    const rates = await opsPerSecond(
      [
        {
          name: 'inline',
          ops_per_call: BATCH,
          fn: () => {
            if (verifyBatch(batch) !== BATCH) throw new Error('a signature did not verify');
          },
        },
        ...tasks,
      ],
      1500,
    );
    return {
      inline: rates.inline!,
      pools: Object.fromEntries(pool_sizes.map((threads) => [threads, rates[`pool_${threads}`]!])),
      cores: availableParallelism(),
    };
  } finally {
    await Promise.all(pools.map(({ pool }) => pool.destroy()));
  }
}
