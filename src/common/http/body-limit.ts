/** Largest JSON body the API accepts (1 MiB); larger bodies are answered with 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
