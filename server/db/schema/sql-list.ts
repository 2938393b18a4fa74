import { sql } from "drizzle-orm";

/** A list of fixed words as SQL (`'a', 'b'`), for the checks that keep a column within its values. */
export const list = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(", "));
