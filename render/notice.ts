/** The observation notice (A5): rendered before any content on every page. */
export const OBSERVATION_NOTICE =
  'Notice: everything in this society is public and permanently recorded. What you read here is the public record; reading it changes nothing.';
