CREATE TABLE "asset" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"generation_id" uuid,
	"role" text NOT NULL,
	"kind" text NOT NULL,
	"mime_type" text NOT NULL,
	"width" integer,
	"height" integer,
	"duration_ms" integer,
	"size_bytes" bigint NOT NULL,
	"checksum" text NOT NULL,
	"storage_key" text NOT NULL,
	"thumb_key" text,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "asset_storage_key_unique" UNIQUE("storage_key"),
	CONSTRAINT "asset_role" CHECK ("asset"."role" in ('output', 'input')),
	CONSTRAINT "asset_kind" CHECK ("asset"."kind" in ('image', 'video'))
);
--> statement-breakpoint
CREATE TABLE "generation" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"tool" text NOT NULL,
	"model_id" text NOT NULL,
	"prompt" text NOT NULL,
	"negative_prompt" text,
	"params" jsonb NOT NULL,
	"input_asset_id" uuid,
	"status" text DEFAULT 'queued' NOT NULL,
	"progress" integer DEFAULT 0 NOT NULL,
	"credits_held" bigint NOT NULL,
	"credits_charged" bigint,
	"hold_id" uuid,
	"provider" text,
	"provider_model" text,
	"error_code" text,
	"error_message" text,
	"visibility" text DEFAULT 'private' NOT NULL,
	"source" text DEFAULT 'web' NOT NULL,
	"idempotency_key" text,
	"request_hash" text,
	"attempt" integer DEFAULT 0 NOT NULL,
	"timeout_seconds" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"heartbeat_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"duration_ms" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "generation_kind" CHECK ("generation"."kind" in ('image', 'video')),
	CONSTRAINT "generation_tool" CHECK ("generation"."tool" in ('text-to-image', 'image-to-image', 'text-to-video')),
	CONSTRAINT "generation_status" CHECK ("generation"."status" in ('queued', 'processing', 'succeeded', 'failed', 'canceled')),
	CONSTRAINT "generation_visibility" CHECK ("generation"."visibility" in ('private', 'public')),
	CONSTRAINT "generation_progress" CHECK ("generation"."progress" between 0 and 100),
	CONSTRAINT "generation_credits" CHECK ("generation"."credits_held" >= 0 and coalesce("generation"."credits_charged", 0) between 0 and "generation"."credits_held")
);
--> statement-breakpoint
CREATE TABLE "generation_attempt" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"generation_id" uuid NOT NULL,
	"run" integer NOT NULL,
	"binding" integer NOT NULL,
	"provider" text NOT NULL,
	"provider_model" text NOT NULL,
	"outcome" text,
	"error_code" text,
	"detail" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "asset" ADD CONSTRAINT "asset_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "asset" ADD CONSTRAINT "asset_generation_id_generation_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generation"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation" ADD CONSTRAINT "generation_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation" ADD CONSTRAINT "generation_input_asset_id_asset_id_fk" FOREIGN KEY ("input_asset_id") REFERENCES "public"."asset"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation" ADD CONSTRAINT "generation_hold_id_credit_hold_id_fk" FOREIGN KEY ("hold_id") REFERENCES "public"."credit_hold"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation_attempt" ADD CONSTRAINT "generation_attempt_generation_id_generation_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generation"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "asset_generation_idx" ON "asset" USING btree ("generation_id","position");--> statement-breakpoint
CREATE INDEX "asset_user_created_idx" ON "asset" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "generation_user_created_idx" ON "generation" USING btree ("user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "generation_user_idempotency_idx" ON "generation" USING btree ("user_id","idempotency_key") WHERE "generation"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "generation_open_idx" ON "generation" USING btree ("status","created_at") WHERE "generation"."status" in ('queued', 'processing');--> statement-breakpoint
CREATE INDEX "generation_model_succeeded_idx" ON "generation" USING btree ("model_id","finished_at" DESC NULLS LAST) WHERE "generation"."status" = 'succeeded';--> statement-breakpoint
CREATE INDEX "generation_public_idx" ON "generation" USING btree ("created_at" DESC NULLS LAST) WHERE "generation"."visibility" = 'public' and "generation"."status" = 'succeeded';--> statement-breakpoint
CREATE INDEX "generation_attempt_generation_idx" ON "generation_attempt" USING btree ("generation_id","id");