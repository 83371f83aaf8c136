/** Thrown when an answer does not match the document: the operation, the status and what Ajv found. */
export class ContractError extends Error {
  constructor(
    readonly where: string,
    readonly errors: unknown,
  ) {
    super(
      `${where} does not match the OpenAPI document: ${typeof errors === 'string' ? errors : JSON.stringify(errors, null, 1)}`,
    );
    this.name = 'ContractError';
  }
}
