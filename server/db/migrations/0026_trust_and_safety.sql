CREATE TABLE "content_report" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"generation_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"note" text,
	"reporter_id" text,
	"reporter_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolution" text,
	CONSTRAINT "content_report_reason" CHECK ("content_report"."reason" in ('sexual', 'minors', 'violence', 'hate', 'harassment', 'illegal', 'rights', 'spam', 'other')),
	CONSTRAINT "content_report_note_length" CHECK (char_length("content_report"."note") <= 1000)
);
--> statement-breakpoint
CREATE TABLE "prompt_refusal" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"source" text NOT NULL,
	"model_id" text NOT NULL,
	"prompt" text NOT NULL,
	"level" text NOT NULL,
	"findings" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "safety" jsonb;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "review" text;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "reviewed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_key" ADD COLUMN "safety_level" text;--> statement-breakpoint
ALTER TABLE "content_report" ADD CONSTRAINT "content_report_generation_id_generation_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generation"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "content_report" ADD CONSTRAINT "content_report_reporter_id_user_id_fk" FOREIGN KEY ("reporter_id") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_refusal" ADD CONSTRAINT "prompt_refusal_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "content_report_open_idx" ON "content_report" USING btree ("generation_id") WHERE "content_report"."resolved_at" is null;--> statement-breakpoint
CREATE INDEX "prompt_refusal_created_idx" ON "prompt_refusal" USING btree ("created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "prompt_refusal_user_idx" ON "prompt_refusal" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "generation_flagged_idx" ON "generation" USING btree ("created_at") WHERE "generation"."review" = 'flagged';--> statement-breakpoint
ALTER TABLE "generation" ADD CONSTRAINT "generation_review" CHECK ("generation"."review" in ('flagged', 'cleared'));--> statement-breakpoint
ALTER TABLE "api_key" ADD CONSTRAINT "api_key_safety_level" CHECK ("api_key"."safety_level" in ('strict', 'standard', 'off'));