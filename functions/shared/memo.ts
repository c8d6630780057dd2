/** A value built on first call and shared after; a failed build (a secret read, say) is retried by the next call. */
export function once<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | undefined;
  return () =>
    (built ??= build().catch((error: unknown) => {
      built = undefined;
      throw error;
    }));
}

/** A value built synchronously on first call and shared after (clients, stores). */
export function lazy<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

type AsyncFunction = (...args: never[]) => Promise<unknown>;
/** The names of T's methods that answer with a promise: the ones a deferred port can forward. */
type AsyncMethodNames<T> = { [K in keyof T]: T[K] extends AsyncFunction ? K : never }[keyof T];

/**
 * A port built at its first call rather than when it is composed, and shared after (a failed
 * build is retried by the next call, as with `once`): a function (or each named method) forwards
 * to the built one's. Composing it costs nothing, so a process that never calls it never loads
 * what it is built from (an SDK client, a model, ffmpeg, the host's workflow runner).
 */
export function deferred<F extends AsyncFunction>(build: () => F | Promise<F>): F;
export function deferred<T extends object, K extends AsyncMethodNames<T>>(build: () => T | Promise<T>, methods: readonly K[]): Pick<T, K>;
export function deferred(build: () => unknown, methods?: readonly PropertyKey[]): unknown {
  const built = once(() => Promise.resolve(build()));
  type Forwarded = (...args: unknown[]) => Promise<unknown>;
  if (!methods) return async (...args: unknown[]) => ((await built()) as Forwarded)(...args);
  return Object.fromEntries(
    methods.map((name) => [
      name,
      async (...args: unknown[]) => {
        const port = (await built()) as Record<PropertyKey, Forwarded>;
        return port[name]!(...args);
      },
    ]),
  );
}
