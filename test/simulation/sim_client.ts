import { createHash, createPublicKey, sign } from 'node:crypto';
import {
  decideAfterRefusedNonce,
  NONCE_LIFETIME_MS,
  sendWithRetries,
  type AnswerHead,
  type RetryClock,
} from '../../client/retry_policy.js';
import { signingString } from '../../client/protocol.js';
import { canonicalJson, findAct, sha256Hex } from '../../engine/index.js';
import { signingKeyOf, type SimulatedMember } from './prologue.js';
import type { Random } from './random.js';
import type { Scheduler } from './scheduler.js';
import type { SimAnswer, SimNode, SimReceipt, SimRequest } from './sim_node.js';

/** How the network between clients and nodes misbehaves. */
export interface HttpFaults {
  lose_request: number;
  lose_answer: number;
  /** How long a client waits for an answer (an agent's own timeout; fetch then rejects with a TimeoutError). */
  timeout_ms: number;
}

/** What a client was told about one of its intents: acknowledged at a seq, refused, or no final answer. */
export type IntentOutcome =
  | { intent: string; acknowledged_seq: number; at_ms: number; receipt: SimReceipt }
  | { intent: string; refused: string }
  | { intent: string; unknown: string };

const ACT = findAct('key_backup_register')!;

/** As many redirects as fetch follows. */
const MAX_REDIRECTS = 20;

/**
 * An agent acting through the SDK's rules (client/retry_policy.ts, the very functions
 * the SDK runs): each intent is one message, signed, sent to the node the client knows,
 * a 307 followed as fetch does, the same request sent again after a lost answer or a
 * 503, and signed again only when a NONCE_INVALID proves it was not applied. Each
 * intent registers a backup key of its own, so the ledger shows whether it landed twice.
 */
export class SimClient {
  readonly outcomes: IntentOutcome[] = [];
  private intents = 0;
  private stopped = false;

  constructor(
    readonly name: string,
    private readonly member: SimulatedMember,
    private readonly nodes: readonly SimNode[],
    private home: SimNode,
    private readonly scheduler: Scheduler,
    private readonly random: Random,
    private readonly faults: HttpFaults,
    /** An agent that signs again after every NONCE_INVALID the rule allows (up to five signings), not only once. */
    private readonly re_signs_every_time: boolean,
    /** Where what the agent was told is written, in a traced run (npm run simulate -- --seed N). */
    private readonly note?: (line: string) => void,
  ) {}

  private readonly clock: RetryClock = {
    now_ms: () => this.scheduler.now_ms,
    sleep: (ms) => this.scheduler.sleep(ms, this.name),
  };

  stop(): void {
    this.stopped = true;
  }

  /** Acts until stopped: an intent, a pause of 0.1 to 1.5 s, the next. */
  async run(): Promise<void> {
    while (!this.stopped) {
      const intent = intentKey(`${this.name}/${++this.intents}`);
      this.outcomes.push(await this.perform(intent));
      await this.clock.sleep(this.random.between(100, 1500));
      // Now and then an agent is pointed at another node.
      if (this.random.chance(0.1)) this.home = this.random.pick(this.nodes);
    }
  }

  private async perform(intent: string): Promise<IntentOutcome> {
    const payload = ACT.payload.parse({ backup_pubkey: intent });
    const body = canonicalJson({ act: ACT.name, challenge_id: null, puzzle_solution: null, payload });
    for (let signings = 0; signings < 5; signings++) {
      const asked_at_ms = this.clock.now_ms();
      const nonce = await this.nonce();
      if (nonce === undefined) return { intent, unknown: 'no nonce could be fetched' };
      const agent_id = this.member.key.agent_id;
      const text = signingString({
        method: 'POST',
        path: '/api/v1/act',
        agent_id,
        nonce,
        body_sha256: sha256Hex(body),
      });
      const signature = sign(null, Buffer.from(text), this.member.signing_key).toString('base64url');
      const request: SimRequest = { kind: 'act', agent_id, nonce, signature, body, payload };
      const sent = await sendWithRetries({ send: () => this.send(request), clock: this.clock });
      if ('failed' in sent) return { intent, unknown: String(sent.failed) };
      const answer = sent.answer as AnswerHead & SimAnswer;
      if (answer.status === 200) {
        const ledger = answer.body.ledger as { first_seq: number } | null;
        if (!ledger) return { intent, refused: 'no entry' };
        this.note?.(
          `${this.name} ${intent.slice(0, 8)} acknowledged at seq ${ledger.first_seq} after ${sent.sendings} sending(s)`,
        );
        const receipt = answer.body.receipt as SimReceipt;
        return { intent, acknowledged_seq: ledger.first_seq, at_ms: this.scheduler.now_ms, receipt };
      }
      if (answer.body.error !== 'NONCE_INVALID') {
        // A 5xx after a lost answer says nothing of the sending that was lost (the SDK raises OutcomeUnknownError).
        if (answer.status >= 500 && sent.answer_lost)
          return { intent, unknown: `${answer.body.error} after a lost answer` };
        return { intent, refused: String(answer.body.error) };
      }
      const decision = decideAfterRefusedNonce({
        answer_lost: sent.answer_lost,
        keeps_answers: true,
        refused_at_ms: this.clock.now_ms(),
        nonce_valid_until_ms: asked_at_ms + NONCE_LIFETIME_MS,
        re_signed: signings > 0,
      });
      this.note?.(
        `${this.name} ${intent.slice(0, 8)} NONCE_INVALID after ${sent.sendings} sending(s): ${JSON.stringify(decision)}`,
      );
      if ('outcome_unknown' in decision) return { intent, unknown: decision.outcome_unknown };
      // The SDK signs again once; an agent written from the docs alone may sign again at every such refusal.
      if ('refused' in decision && !this.re_signs_every_time) return { intent, refused: 'NONCE_INVALID' };
    }
    return { intent, unknown: 'refused NONCE_INVALID five times' };
  }

  private async nonce(): Promise<string | undefined> {
    const sent = await sendWithRetries({
      send: () => this.send({ kind: 'nonce', agent_id: this.member.key.agent_id }),
      clock: this.clock,
    });
    if ('failed' in sent) return undefined;
    const answer = sent.answer as AnswerHead & SimAnswer;
    return answer.status === 200 ? String(answer.body.nonce) : undefined;
  }

  /** One sending, as fetch makes it: to the home node, following one 307 to the node it names. */
  private async send(request: SimRequest): Promise<AnswerHead & SimAnswer> {
    let target = this.home;
    for (let hops = 0; ; hops++) {
      const answer = await this.exchange(target, request);
      if (answer.status !== 307) return answer;
      // fetch gives up on a chain of redirects (nodes naming each other as the writer) as a network failure.
      if (hops === MAX_REDIRECTS) throw new TypeError('fetch failed: redirect count exceeded');
      const next = this.nodes.find((node) => node.options.id === answer.headers.location);
      if (!next) return answer;
      target = next;
    }
  }

  /** A request across the network to `node` and its answer back: lost either way, or late, as the faults say. */
  private exchange(node: SimNode, request: SimRequest): Promise<AnswerHead & SimAnswer> {
    const { scheduler, random, faults } = this;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (outcome: SimAnswer | Error) => {
        if (settled) return;
        settled = true;
        if (outcome instanceof Error) reject(outcome);
        else
          resolve({
            ...outcome,
            headers: { ...outcome.headers, get: (name: string) => outcome.headers[name] ?? null },
          } as never);
      };
      const timeout = new Error('the agent gave up waiting');
      timeout.name = 'TimeoutError';
      scheduler.at(faults.timeout_ms, this.name, () => settle(timeout));
      const lose_request = random.chance(faults.lose_request);
      const lose_answer = random.chance(faults.lose_answer);
      if (lose_request) return;
      scheduler.at(random.between(0.3, 5), undefined, () => {
        const owner = node.owner;
        // A process that is not there refuses the connection; a paused one takes it and answers when it resumes.
        if (owner === undefined)
          return scheduler.at(random.between(0.3, 2), this.name, () =>
            settle(new TypeError('fetch failed: connection refused')),
          );
        scheduler.at(0, owner, () => {
          void node.handle(request).then((answer) => {
            if (!lose_answer) scheduler.at(random.between(0.3, 5), this.name, () => settle(answer));
          });
        });
      });
    });
  }
}

/** Intents are named alike in every run (client0/1, ...): their keys are made once per process. */
const intent_keys = new Map<string, string>();

/** An intent is the backup key it registers: a public key derived from the intent's name, the same every run. */
function intentKey(name: string): string {
  const known = intent_keys.get(name);
  if (known) return known;
  const seed = createHash('sha256').update(`tessera simulation intent ${name}`).digest();
  const key = signingKeyOf(seed);
  const public_key = createPublicKey(key).export({ format: 'jwk' }).x!;
  intent_keys.set(name, public_key);
  return public_key;
}
