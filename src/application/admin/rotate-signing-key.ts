import type { SigningKeyRotation } from '../../domain/identity/signing-key-rotation.port.js';

/** Starts signing wallet tokens with a new key; the old key verifies until its tokens expire. */
export class RotateSigningKey {
  constructor(private readonly keys: SigningKeyRotation) {}

  execute(): Promise<{ kid: string; previousKid: string | null }> {
    return this.keys.rotate();
  }
}
