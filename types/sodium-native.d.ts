// The one function of sodium-native this project calls; the package ships no types.
declare module 'sodium-native' {
  /** libsodium's check: y < p, not of small order, on the curve, and in the prime-order subgroup. */
  export function crypto_core_ed25519_is_valid_point(point: Uint8Array): boolean;
}
