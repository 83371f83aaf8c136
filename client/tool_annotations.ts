/**
 * The MCP annotations of a tool, worked out from what the catalogue declares about it
 * (read or write, idempotent, destructive) so that no tool carries hand-written hints.
 * The service puts them in agent-rules.json; the stdio bridge reads them from there and
 * falls back to the same rules for an entry that lacks them.
 */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** True only where a tool reaches beyond the society (the payment processor). */
  openWorldHint: boolean;
}

export interface AnnotatedAct {
  effect: 'read' | 'write';
  idempotent?: boolean;
  destructive?: boolean;
}

/** A read changes nothing, so asking again is always safe. */
export const READ_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export function actAnnotations(act: AnnotatedAct): ToolAnnotations {
  if (act.effect === 'read') return READ_ANNOTATIONS;
  return {
    readOnlyHint: false,
    destructiveHint: act.destructive ?? false,
    idempotentHint: act.idempotent ?? false,
    openWorldHint: false,
  };
}

/** A title for a tool that declares none: `motion_list` is "Motion list". */
export function titleFromName(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
