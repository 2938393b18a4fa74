CREATE TABLE "plan" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"names" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"description" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"monthly" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"yearly" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"credits" integer DEFAULT 0 NOT NULL,
	"rollover" integer DEFAULT 0 NOT NULL,
	"unlocks" jsonb NOT NULL,
	"trial_days" integer DEFAULT 0 NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "plan_id" CHECK ("plan"."id" ~ '^[a-z0-9-]{1,32}$'),
	CONSTRAINT "plan_credits" CHECK ("plan"."credits" >= 0 and "plan"."rollover" >= 0 and "plan"."trial_days" between 0 and 365)
);
--> statement-breakpoint
INSERT INTO "plan" ("id", "name", "unlocks") VALUES ('free', 'Free', '{"models":[],"concurrentJobs":null,"privateResults":false,"noLabel":false,"priority":false,"api":true}') ON CONFLICT DO NOTHING;
