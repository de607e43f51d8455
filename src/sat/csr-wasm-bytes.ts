/**
 * The bytes of the theory's adjacency kernel, assembled ahead of time: the solve stage was the last one to run the
 * assembler (util/wasm-asm.ts) in a fresh process, cold, for its three kernels.
 * Generated from csr-wasm.ts's CSR; test/solve/kernel-bytes.test.ts checks that they are still what the
 * assembler makes, and rewrites them when run with UPDATE_WASM_KERNEL=1.
 */

// The module's bytes, base64, in lines of 96 characters.
export const CSR_BASE64 = [
  'AGFzbQEAAAABEQFgDH9/f39/f39/f39/fwF/Ag8BA2VudgZtZW1vcnkCAAEDAgEABwcBA2NzcgAACugCAeUCAQZ/AkADQCAM',
  'IABPDQEgDEECdCINIAJqKAIAIg4gAU8EQEF/DwsgDSADaigCACIPIAFPBEBBfw8LIA5BAnQgBWoiECAQKAIEQQFqNgIEIA9B',
  'AnQgCGoiECAQKAIEQQFqNgIEIAxBAWohDAwACwtBACEOAkADQCAOIAFPDQEgDkECdCINIAVqIhAgECgCBCAQKAIAajYCBCAN',
  'IAhqIhAgECgCBCAQKAIAajYCBCAOQQFqIQ4MAAsLIAogBSABQQJ0/AoAACALIAggAUECdPwKAABBACEMAkADQCAMIABPDQEg',
  'DEECdCINIAJqKAIAIQ4gDSADaigCACEPIA5BAnQgCmoiECgCACERIBAgEUEBajYCACARQQJ0IhEgBmogDzYCACARIAdqIA0g',
  'BGooAgA2AgAgD0ECdCALaiIQKAIAIREgECARQQFqNgIAIBFBAnQgCWogDjYCACAMQQFqIQwMAAsLQQAL',
].join('');
