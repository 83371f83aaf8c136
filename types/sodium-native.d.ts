// The functions of sodium-native this project calls; the package ships no types.
declare module 'sodium-native' {
  /** libsodium's check: y < p, not of small order, on the curve, and in the prime-order subgroup. */
  export function crypto_core_ed25519_is_valid_point(point: Uint8Array): boolean;
  /** A fresh ed25519 key pair into the two buffers (the benches' throwaway members). */
  export function crypto_sign_keypair(public_key: Uint8Array, secret_key: Uint8Array): void;
  export const crypto_sign_PUBLICKEYBYTES: number;
  export const crypto_sign_SECRETKEYBYTES: number;
}
