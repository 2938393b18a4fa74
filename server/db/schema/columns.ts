import { customType } from "drizzle-orm/pg-core";

/** PostgreSQL's full-text search document. */
export const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });
