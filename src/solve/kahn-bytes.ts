/**
 * The bytes of the model check's Kahn kernel, assembled ahead of time: the solve stage was the last one to run the
 * assembler (util/wasm-asm.ts) in a fresh process, cold, for its three kernels.
 * Generated from kahn.ts's KAHN; test/solve/kernel-bytes.test.ts checks that they are still what the
 * assembler makes, and rewrites them when run with UPDATE_WASM_KERNEL=1.
 */

// The module's bytes, base64, in lines of 96 characters.
export const KAHN_BASE64 = [
  'AGFzbQEAAAABDgFgCX9/f39/f39/fwF/Ag8BA2VudgZtZW1vcnkCAAEDAgEABwgBBGthaG4AAAqUBAGRBAEKfyACIQkgAyEM',
  'AkADQCAJIAxPDQEgCSgCACINIABPBEBBfw8LIA1BAnQgBWoiECAQKAIAQQFqNgIAIAlBBGohCQwACwtBACESAkADQCASQQJ0',
  'IgkgA2ogBE8NASAJIARqKAIAIg0gAE8EQEF/DwsgCSADaigCACIKIABPBEBBfw8LIA1BAnQgBWoiECAQKAIAQQFqNgIAIAkg',
  'CGogCkECdCAHaiIQKAIANgIAIBAgEkEBajYCACASQQFqIRIMAAsLQQAhCgJAA0AgCiAATw0BIApBAnQgAWoiECgCACAQKAIE',
  'SgRAQX8PCyAKQQJ0IAVqKAIARQRAIA9BAnQgBmogCjYCACAPQQFqIQ8LIApBAWohCgwACwsCQANAIA4gD08NASAOQQJ0IAZq',
  'KAIAIQogDkEBaiEOIApBAnQgAWoiECgCAEECdCACaiELIBAoAgRBAnQgAmohDAJAA0AgCyAMTw0BIAsoAgAiDUECdCAFaiIQ',
  'IBAoAgBBAWsiETYCACARRQRAIA9BAnQgBmogDTYCACAPQQFqIQ8LIAtBBGohCwwACwsgCkECdCAHaigCACESAkADQCASRQ0B',
  'IBJBAWtBAnQiCyAEaigCACINQQJ0IAVqIhAgECgCAEEBayIRNgIAIBFFBEAgD0ECdCAGaiANNgIAIA9BAWohDwsgCyAIaigC',
  'ACESDAALCwwACwsgDws=',
].join('');
