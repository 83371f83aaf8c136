import type { Engine } from '../engine/engine.js';
import type { PomAnswer } from '../engine/pom/gate.js';

/** Benches skip the solving: they ask the engine for a challenge and read its answer from the state. */
export async function pomAnswer(engine: Engine, actor: string, intent: string): Promise<PomAnswer> {
  const issued = await engine.submit({ act: 'pom_challenge', actor, payload: { intent } });
  if (!issued.ok) throw new Error(`challenge refused: ${issued.code}`);
  const challenge_id = issued.result.challenge_id as string;
  return { challenge_id, puzzle_solution: engine.state.pom.challenges[challenge_id]!.answer };
}
