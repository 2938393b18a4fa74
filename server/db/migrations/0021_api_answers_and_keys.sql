ALTER TABLE "generation" ADD COLUMN "api_key_id" uuid;--> statement-breakpoint
ALTER TABLE "api_idempotency" ADD COLUMN "response_kind" text DEFAULT 'json' NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_conversation" ADD COLUMN "api_key_id" uuid;--> statement-breakpoint
ALTER TABLE "generation" ADD CONSTRAINT "generation_api_key_id_api_key_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_key"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_conversation" ADD CONSTRAINT "chat_conversation_api_key_id_api_key_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_key"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "generation_api_key_idx" ON "generation" USING btree ("api_key_id") WHERE "generation"."api_key_id" is not null;--> statement-breakpoint
CREATE INDEX "chat_conversation_api_key_idx" ON "chat_conversation" USING btree ("api_key_id") WHERE "chat_conversation"."api_key_id" is not null;--> statement-breakpoint
ALTER TABLE "api_idempotency" ADD CONSTRAINT "api_idempotency_response_kind" CHECK ("api_idempotency"."response_kind" in ('json', 'chat_stream', 'remade'));