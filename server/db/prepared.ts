import type { Db } from "./client.ts";

/**
 * A statement for a hot path, built once per database handle: give it a name with `.prepare(name)` and each
 * connection parses and plans its text once instead of on every call.
 */
export function preparedPerDatabase<T>(build: (db: Db) => T): (db: Db) => T {
  const built = new WeakMap<Db, T>();
  return (db) => {
    let statement = built.get(db);
    if (statement === undefined) {
      statement = build(db);
      built.set(db, statement);
    }
    return statement;
  };
}
