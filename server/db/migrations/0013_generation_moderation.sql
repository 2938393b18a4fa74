ALTER TABLE "generation" ADD COLUMN "hidden_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "refunded_at" timestamp with time zone;