/**
 * A plain `Response` given as one of the answers a route declares: an error body, an idempotent
 * answer replayed from the store, a streamed history, a download. `@hono/zod-openapi` types an
 * `openapi()` handler to return only the typed responses `c.json()` builds when every declared
 * answer has content, although it sends any `Response` as it is; the answers these build are
 * checked against the OpenAPI document by the server's tests instead.
 */
export function declaredAnswer(response: Response): never {
  // eslint-disable-next-line no-restricted-syntax -- @hono/zod-openapi's handler type accepts no plain Response for routes whose answers all have content
  return response as never;
}
