ALTER TABLE "chat_conversation" ADD COLUMN "shared_leaf_id" uuid;--> statement-breakpoint
ALTER TABLE "chat_conversation" ADD COLUMN "shared_at" timestamp with time zone;