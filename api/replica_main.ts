#!/usr/bin/env node
/**
 * tessera-replica: the server as a read replica of a replicated society (docs/scaling.md),
 * the same as `ROLE=replica npm start`. Configuration is the server's, from the
 * environment; LOG_URL is required.
 */
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`tessera-replica: a read replica of a Tessera society replicated over NATS JetStream

  LOG_URL=nats://n1:4222,nats://n2:4222 DATA_DIR=/srv/replica PUBLIC_URL=https://b.example tessera-replica

Follows the society's tick log into its own store, serves every public read, and redirects
writes (307) to the leader. Copy log.key from the leader's data folder first (and, to start
faster, a backup's data.mdb into DATA_DIR/store/). Takes the lease and writes if the leader
is gone, unless FAILOVER=off. Every variable of the server applies; see docs/scaling.md.`);
  process.exit(0);
}
process.env.ROLE ??= 'replica';
await import('./main.js');
