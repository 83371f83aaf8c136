import {
  AP_SPENDING_ACTS,
  EVENT_CATALOGUE,
  EVENT_TYPES,
  type EventDeclaration,
  type SignedField,
} from './event_catalogue.js';

/**
 * docs/protocol.md's table of event types, made from the event catalogue so the docs
 * say what the verifier checks (test/event_catalogue.test.ts holds them equal).
 */
export function eventTable(): string {
  const rows = EVENT_TYPES.map((event_type) => {
    const declaration: EventDeclaration = EVENT_CATALOGUE[event_type];
    return `| \`${event_type}\` | ${classWords(declaration)} | ${requestWords(declaration)} | ${tileWords(declaration)} | ${declaration.summary} |`;
  });
  return [
    '| event_type | actor | signed request (act: data fields equal to its payload) | tile | what it records |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

function classWords(declaration: EventDeclaration): string {
  if (declaration.class === 'system') return '`system`, no proof';
  if (declaration.class === 'follows_request') return 'an agent, no proof: follows a request';
  return 'an agent, opens a request: carries its proof';
}

function requestWords(declaration: EventDeclaration): string {
  if (declaration.class === 'system') return '';
  if (declaration.class === 'follows_request') {
    const follows = declaration.follows;
    const after = (types: readonly string[]) => types.map((type) => `\`${type}\``).join(', ');
    const openers =
      follows === 'acts that spend AP'
        ? `at once behind the entry of an act that spends AP (${[...AP_SPENDING_ACTS].map((act) => `\`${act}\``).join(', ')})`
        : Array.isArray(follows)
          ? `behind ${after(follows)}`
          : Object.entries(follows as Record<string, readonly string[]>)
              .map(([reason, types]) => `reason \`${reason}\` behind ${after(types)}`)
              .join('; ');
    const actor = declaration.actor_from_opening
      ? `; its actor is the opening entry's \`data.${declaration.actor_from_opening}\``
      : '';
    return `${openers}${actor}`;
  }
  const acts = Object.entries(declaration.opened_by).map(
    ([act, opener]) =>
      `\`${act}\`: ${opener.signed_fields.map(fieldWords).join(', ') || 'none'}${opener.spends_ap ? ' (spends AP)' : ''}`,
  );
  const notes = [
    declaration.digest_proof ? 'proof in digest form; `data.payload_sha256` equals `body_sha256`' : '',
    declaration.signed_by === 'data.pubkey' ? 'signed by `data.pubkey` itself' : '',
    declaration.signed_by === 'backup_key' ? 'signed by the backup key' : '',
    declaration.at_genesis_without_proof ? "the Founder's at genesis has no proof" : '',
  ].filter(Boolean);
  return [...acts, ...notes].join('; ');
}

function fieldWords(field: SignedField): string {
  const name = field.payload === field.data ? `\`${field.data}\`` : `\`${field.payload}\` as \`data.${field.data}\``;
  return field.when_given ? `${name}?` : name;
}

function tileWords(declaration: EventDeclaration): string {
  if (declaration.tile === undefined) return '';
  return declaration.tile === '.' ? '`x`, `y`' : `\`${declaration.tile}\``;
}
