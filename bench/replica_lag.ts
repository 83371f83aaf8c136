/**
 * How far a replica trails its leader: both nodes' event streams read from the same
 * point in this process, and for each entry seen on both, the time between its arrival
 * from the leader and from the replica. Each node publishes an entry once it is durable
 * there, so this is the replica's lag from the leader's commit (its quorum append, then
 * its local commit) to the replica's own commit of the same tick, plus the difference
 * of the two streams' delivery.
 */
export class ReplicaLagProbe {
  private readonly leader_ms = new Map<number, number>();
  private readonly lags_ms: number[] = [];
  private readonly aborts = new AbortController();
  private readonly readers: Promise<void>[];

  constructor(leader_url: string, replica_url: string, from_seq: number) {
    const replica_ms = new Map<number, number>();
    this.readers = [
      this.read(leader_url, from_seq, (seq, at_ms) => {
        const replica_at = replica_ms.get(seq);
        if (replica_at === undefined) this.leader_ms.set(seq, at_ms);
        else this.lags_ms.push(replica_at - at_ms);
      }),
      this.read(replica_url, from_seq, (seq, at_ms) => {
        const leader_at = this.leader_ms.get(seq);
        if (leader_at === undefined) replica_ms.set(seq, at_ms);
        else {
          this.leader_ms.delete(seq);
          this.lags_ms.push(at_ms - leader_at);
        }
      }),
    ];
  }

  /** Stops reading; the lags of the entries seen on both streams, in ms. */
  async stop(): Promise<number[]> {
    this.aborts.abort();
    await Promise.allSettled(this.readers);
    return this.lags_ms;
  }

  private async read(url: string, from_seq: number, seen: (seq: number, at_ms: number) => void): Promise<void> {
    const response = await fetch(`${url}/api/v1/events?from=${from_seq}`, { signal: this.aborts.signal });
    const decoder = new TextDecoder();
    let pending = '';
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      const at_ms = performance.now();
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line.startsWith('id: ')) seen(Number(line.slice(4)), at_ms);
    }
  }
}
