import { DEFAULT_PARAMS, type Params } from './params.js';

/** A parameter named in prose with its value after it in parentheses: `dig_ap (1)`, `relay_mast_iron (20 iron)`. */
const NAMED_VALUE = /\b([a-z][a-z0-9_]*) \((\d+(?:\.\d+)?)/g;

/**
 * An act's summary as it holds now: each parameter it names with a value, `dig_ap (1)`,
 * shows the value in force, which a set_param motion may have changed since the summary
 * was written with the default. Only a value equal to the parameter's default is taken for
 * it: another number is in other units (`voting_window_seconds (48 h by default)`), and a
 * name that is not a parameter is left as written.
 */
export function currentSummary(summary: string, params: Readonly<Params>): string {
  const defaults = DEFAULT_PARAMS as unknown as Record<string, unknown>;
  return summary.replace(NAMED_VALUE, (whole, name: string, written: string) => {
    const value = (params as unknown as Record<string, unknown>)[name];
    return typeof value === 'number' && defaults[name] === Number(written) ? `${name} (${value}` : whole;
  });
}
