import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uuid,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";
import { user } from "./auth.ts";
import { apiKey } from "./api.ts";
import { creditHold } from "./credits.ts";
import { tsvector } from "./columns.ts";
import { list } from "./sql-list.ts";

export const CHAT_ROLES = ["user", "assistant"] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

/**
 * An answer's life: `streaming` while the model writes (saved as it grows), then `done`, `stopped` (by its
 * author, what was written kept and charged), `failed` (nothing charged) or `out_of_credits` (the answer reached
 * what the balance could pay for; kept and charged, to be continued after a top-up). A question is `done`.
 */
export const CHAT_MESSAGE_STATUSES = ["streaming", "done", "stopped", "failed", "out_of_credits"] as const;
export type ChatMessageStatus = (typeof CHAT_MESSAGE_STATUSES)[number];

/** A message's content as the AI SDK's UI messages carry it: text, files (images) and tool calls with results. */
export type ChatPart = { type: string; [key: string]: unknown };

export const chatFolder = pgTable(
  "chat_folder",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("chat_folder_user_idx").on(t.userId, t.name)],
);

/**
 * A conversation: its model and system prompt, where it is filed, and which branch of its message tree is shown
 * (`leafId`, the last message of that branch). Titles and messages are searched with PostgreSQL's full-text search
 * (the `simple` configuration: every language, no stemming).
 */
export const chatConversation = pgTable(
  "chat_conversation",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    title: text("title"),
    modelId: text("model_id").notNull(),
    systemPrompt: text("system_prompt"),
    pinned: boolean("pinned").notNull().default(false),
    folderId: uuid("folder_id").references(() => chatFolder.id, { onDelete: "set null" }),
    leafId: uuid("leaf_id"),
    /** A read-only link's secret (hashed) while the conversation is shared. */
    shareTokenHash: text("share_token_hash").unique(),
    /** Where it was started: the chat page, or the OpenAI-compatible API (one per request, never listed on the page). */
    source: text("source").$type<"web" | "api">().notNull().default("web"),
    /** The API key that asked (the API's conversations), while the key exists. */
    apiKeyId: uuid("api_key_id").references(() => apiKey.id, { onDelete: "set null" }),
    /** The last message the link shows (the branch shown when it was made: later messages stay private), and when. */
    sharedLeafId: uuid("shared_leaf_id"),
    sharedAt: timestamp("shared_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    search: tsvector("search").generatedAlwaysAs(sql`to_tsvector('simple', coalesce(title, ''))`),
  },
  (t) => [
    check("chat_conversation_source", sql`${t.source} in ('web', 'api')`),
    index("chat_conversation_user_idx").on(t.userId, t.pinned, t.updatedAt.desc()),
    index("chat_conversation_search_idx").using("gin", t.search),
    // The API's conversations, oldest first, for their purge.
    index("chat_conversation_api_key_idx")
      .on(t.apiKeyId)
      .where(sql`${t.apiKeyId} is not null`),
    index("chat_conversation_api_idx")
      .on(t.updatedAt)
      .where(sql`${t.source} = 'api'`),
  ],
);

/**
 * One message of a conversation's tree: `parentId` is the message it answers or follows, so a regenerated answer
 * or an edited question is a sibling of the one it replaces. An answer holds its credits (`holdId`) while it
 * streams and is charged for what it used, once, when it ends.
 */
export const chatMessage = pgTable(
  "chat_message",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => chatConversation.id, { onDelete: "cascade" }),
    parentId: uuid("parent_id").references((): AnyPgColumn => chatMessage.id, { onDelete: "cascade" }),
    role: text("role").$type<ChatRole>().notNull(),
    parts: jsonb("parts").$type<ChatPart[]>().notNull(),
    /** The text of the parts, for search and titles. */
    text: text("text").notNull().default(""),
    status: text("status").$type<ChatMessageStatus>().notNull().default("done"),
    modelId: text("model_id"),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    /** Credits held for the answer while it streams, and charged when it ends. */
    creditsHeld: bigint("credits_held", { mode: "number" }),
    creditsCharged: bigint("credits_charged", { mode: "number" }),
    holdId: uuid("hold_id").references(() => creditHold.id),
    errorCode: text("error_code"),
    /** Its author asked to stop it through a process other than the one writing it, which stops it when it saves. */
    stopRequestedAt: timestamp("stop_requested_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    search: tsvector("search").generatedAlwaysAs(sql`to_tsvector('simple', text)`),
  },
  (t) => [
    check("chat_message_role", sql`${t.role} in (${list(CHAT_ROLES)})`),
    check("chat_message_status", sql`${t.status} in (${list(CHAT_MESSAGE_STATUSES)})`),
    check("chat_message_credits", sql`coalesce(${t.creditsCharged}, 0) between 0 and coalesce(${t.creditsHeld}, 0)`),
    index("chat_message_conversation_idx").on(t.conversationId, t.createdAt),
    index("chat_message_parent_idx").on(t.parentId),
    index("chat_message_streaming_idx")
      .on(t.updatedAt)
      .where(sql`${t.status} = 'streaming'`),
    index("chat_message_search_idx").using("gin", t.search),
  ],
);
