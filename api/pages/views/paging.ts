/** Rows on a paged list page (the ledger, Dispatches, the Aether). */
export const page_size = 50;
