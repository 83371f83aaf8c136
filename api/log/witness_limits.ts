/**
 * The bounds on the log's exchanges with its witnesses (witnessing.ts, witness_flow.ts).
 * Each witness is asked in its own flow, so these bound what one witness can cost the
 * service — memory, time, requests — and never delay another witness or the checkpoint
 * readers are served.
 */
export interface WitnessLimits {
  /**
   * The most bytes read of one witness answer, whatever its status. A cosignature is one
   * signature line, the witness's name and 104 base64 characters; a longer answer is
   * refused and its connection dropped without reading the rest (a witness answering
   * 300 MB once cost the service 1 GB).
   */
  answer_bytes_max: number;
  /**
   * How long one request to a witness may take, answer read included. A witness that
   * takes longer is reported and asked again at its next round; only its own flow waits.
   */
  timeout_ms: number;
  /** A witness is asked for the newest checkpoint this often, when the log has grown since it last cosigned. */
  round_interval_ms: number;
}

export const WITNESS_LIMITS: Readonly<WitnessLimits> = Object.freeze({
  answer_bytes_max: 4 * 1024,
  timeout_ms: 5_000,
  round_interval_ms: 1_000,
});
