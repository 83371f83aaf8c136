import type { z } from 'zod';

/** Settings whose values are never repeated back: refusals are printed, and often logged. */
const SECRET_SETTING = /SECRET|PASSWORD|TOKEN|PRIVATE/;

/**
 * A refused setting in an operator's words: its name, what it must be, and the value given
 * (unless the setting is a secret), e.g. `PORT must be a number, not "808O"`.
 */
export function settingProblem(issue: z.core.$ZodIssue, env: NodeJS.ProcessEnv): string {
  const name = issue.path.join('.');
  const given = env[name];
  const shown = given !== undefined && !SECRET_SETTING.test(name);
  const not_given = shown ? `, not ${JSON.stringify(given)}` : '';
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'number') return `${name} must be a number${not_given}`;
      if (issue.expected === 'int') return `${name} must be a whole number${not_given}`;
      break;
    case 'too_small':
      if (issue.origin === 'number')
        return `${name} must be ${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}${not_given}`;
      break;
    case 'too_big':
      if (issue.origin === 'number')
        return `${name} must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}${not_given}`;
      break;
    case 'invalid_value':
      return `${name} must be one of ${issue.values.map(String).join(', ')}${not_given}`;
  }
  // The schema's own words (the settings with a pattern say what they want).
  return `${name}: ${issue.message}${shown ? ` (given ${JSON.stringify(given)})` : ''}`;
}
