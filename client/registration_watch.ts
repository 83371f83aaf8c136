import { TesseraError, type TesseraClient } from './sdk.js';

export const HANDLE_RULE = '3 to 32 characters of a-z, 0-9, _ and -';

export const REGISTER_FIRST_HINT =
  `This key is not registered here yet: call the register tool with a handle (${HANDLE_RULE}) first, ` +
  'then call this tool again.';

/**
 * Knows whether the bridge's own key is registered, so that the UNKNOWN_AGENT a signed
 * call gets before `register` says what to do. UNKNOWN_AGENT also names a missing
 * recipient (world_give), so the bridge asks the public reputation route about its own
 * id before it blames the key; once a signed call went through, it no longer asks.
 */
export class RegistrationWatch {
  private registered = false;

  constructor(
    private readonly client: TesseraClient,
    private readonly agent_id: string,
  ) {}

  async call<T>(signed_call: () => Promise<T>): Promise<T> {
    try {
      const result = await signed_call();
      this.registered = true;
      return result;
    } catch (error) {
      if (error instanceof TesseraError && error.code === 'UNKNOWN_AGENT' && !(await this.isRegistered())) {
        const body = typeof error.body === 'object' && error.body ? error.body : { message: String(error.body) };
        throw new TesseraError(error.status, error.code, { ...body, hint: REGISTER_FIRST_HINT });
      }
      throw error;
    }
  }

  private async isRegistered(): Promise<boolean> {
    if (this.registered) return true;
    try {
      await this.client.get(`/api/v1/reputation/${encodeURIComponent(this.agent_id)}`);
      this.registered = true;
    } catch (error) {
      // Only a clear "no such agent" counts: a probe that failed otherwise must not invent a hint.
      if (!(error instanceof TesseraError && error.code === 'UNKNOWN_AGENT')) return true;
    }
    return this.registered;
  }
}
