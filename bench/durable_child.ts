import { benchSends } from './aether.js';
import { benchVotes } from './governance.js';
import { benchMoves } from './world.js';

/**
 * One durable act's bench in a process of its own (`node durable_child.js moves|votes|sends`),
 * its rates printed as one JSON line. In the bench's own process the three came after the
 * other rows and after each other, and what those left on the heap moved a send's rate
 * between runs by half again (bench/PROFILES.md, "A process for each durable act").
 */
const benches = { moves: benchMoves, votes: benchVotes, sends: benchSends } as const;
const which = process.argv[2] as keyof typeof benches;
if (!(which in benches)) {
  console.error(`usage: node durable_child.js ${Object.keys(benches).join('|')}`);
  process.exit(2);
}
console.log(JSON.stringify(await benches[which]()));
