CREATE TABLE "chat_conversation" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"title" text,
	"model_id" text NOT NULL,
	"system_prompt" text,
	"pinned" boolean DEFAULT false NOT NULL,
	"folder_id" uuid,
	"leaf_id" uuid,
	"share_token_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', coalesce(title, ''))) STORED,
	CONSTRAINT "chat_conversation_share_token_hash_unique" UNIQUE("share_token_hash")
);
--> statement-breakpoint
CREATE TABLE "chat_folder" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_message" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"conversation_id" uuid NOT NULL,
	"parent_id" uuid,
	"role" text NOT NULL,
	"parts" jsonb NOT NULL,
	"text" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'done' NOT NULL,
	"model_id" text,
	"input_tokens" integer,
	"output_tokens" integer,
	"credits_held" bigint,
	"credits_charged" bigint,
	"hold_id" uuid,
	"error_code" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED,
	CONSTRAINT "chat_message_role" CHECK ("chat_message"."role" in ('user', 'assistant')),
	CONSTRAINT "chat_message_status" CHECK ("chat_message"."status" in ('streaming', 'done', 'stopped', 'failed', 'out_of_credits')),
	CONSTRAINT "chat_message_credits" CHECK (coalesce("chat_message"."credits_charged", 0) between 0 and coalesce("chat_message"."credits_held", 0))
);
--> statement-breakpoint
ALTER TABLE "chat_conversation" ADD CONSTRAINT "chat_conversation_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_conversation" ADD CONSTRAINT "chat_conversation_folder_id_chat_folder_id_fk" FOREIGN KEY ("folder_id") REFERENCES "public"."chat_folder"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_folder" ADD CONSTRAINT "chat_folder_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_message" ADD CONSTRAINT "chat_message_conversation_id_chat_conversation_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."chat_conversation"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_message" ADD CONSTRAINT "chat_message_parent_id_chat_message_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."chat_message"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_message" ADD CONSTRAINT "chat_message_hold_id_credit_hold_id_fk" FOREIGN KEY ("hold_id") REFERENCES "public"."credit_hold"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_conversation_user_idx" ON "chat_conversation" USING btree ("user_id","pinned","updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "chat_conversation_search_idx" ON "chat_conversation" USING gin ("search");--> statement-breakpoint
CREATE INDEX "chat_folder_user_idx" ON "chat_folder" USING btree ("user_id","name");--> statement-breakpoint
CREATE INDEX "chat_message_conversation_idx" ON "chat_message" USING btree ("conversation_id","created_at");--> statement-breakpoint
CREATE INDEX "chat_message_parent_idx" ON "chat_message" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "chat_message_streaming_idx" ON "chat_message" USING btree ("updated_at") WHERE "chat_message"."status" = 'streaming';--> statement-breakpoint
CREATE INDEX "chat_message_search_idx" ON "chat_message" USING gin ("search");