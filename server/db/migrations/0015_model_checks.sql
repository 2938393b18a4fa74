CREATE TABLE "model_check" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"model_id" text NOT NULL,
	"binding" integer NOT NULL,
	"provider" text NOT NULL,
	"provider_model" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"error_code" text,
	"detail" text,
	"duration_ms" integer,
	"actor_id" text,
	"actor" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "model_check_status" CHECK ("model_check"."status" in ('running', 'succeeded', 'failed'))
);
--> statement-breakpoint
CREATE INDEX "model_check_model_idx" ON "model_check" USING btree ("model_id","binding","created_at" DESC NULLS LAST);