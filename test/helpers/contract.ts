/**
 * Answers checked against the contract (issue 31): every answer a test receives from a
 * test society is held to the service's own OpenAPI document, built in-process from the
 * code GET /api/v1/openapi.json serves, as a client generated from that document would
 * read it (JSON Schema 2020-12, formats checked). One concept a file:
 *
 * - contract_document.ts: a document as a contract, and the one the service serves;
 * - contract_routes.ts: a request's operation, and an answer's declared response;
 * - contract_schemas.ts: the document's schemas compiled (Ajv);
 * - contract_headers.ts: an answer's headers against those declared;
 * - contract_media.ts: media types;
 * - contract_watch.ts: the servers whose answers are checked, and what was found;
 * - contract_fetch.ts: fetch wrapped so that every answer it gets is checked.
 */
export { ContractError } from './contract_error.js';
export type { AnswerHeaders } from './contract_headers.js';
export { isJson } from './contract_media.js';
export { checkAnswer, contractFor, contractOf, theContract, type Contract } from './contract_document.js';
export { checkWatchedAnswer, takeContractFailures, unwatchAnswers, watchAnswers } from './contract_watch.js';
export { installContractCheck } from './contract_fetch.js';
