/**
 * When the server asks a client to come back later, as client-go's rest
 * client reads it (`checkWait`): a 429 or any 5xx answer carrying a
 * `Retry-After` of whole seconds. Such a request is sent again after that
 * delay, whatever its verb (the server promises it did not act on it), at
 * most a bounded number of times; an answer without the header is final.
 */

/** client-go's default number of retries of one request (`Request.maxRetries`). */
export const defaultMaxRetries = 10;

/**
 * The delay the server asked for, in ms, or undefined when this answer is
 * not a request to retry: another status, no `Retry-After`, or one that is
 * not an integer (an HTTP date is ignored, as by client-go). A negative
 * value means at once.
 */
export function retryAfterMs(status: number, header: string | string[] | undefined): number | undefined {
  if (status !== 429 && status < 500) return undefined;
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value || !/^[+-]?\d+$/.test(value)) return undefined;
  return Math.max(0, Number(value)) * 1000;
}
