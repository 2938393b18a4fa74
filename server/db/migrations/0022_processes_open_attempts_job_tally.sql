CREATE TABLE "atelier_process" (
	"id" text PRIMARY KEY NOT NULL,
	"role" text NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"build" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_tally" (
	"queue" text NOT NULL,
	"outcome" text NOT NULL,
	"le" double precision NOT NULL,
	"jobs" bigint NOT NULL,
	"seconds" double precision NOT NULL,
	CONSTRAINT "job_tally_queue_outcome_le_pk" PRIMARY KEY("queue","outcome","le")
);
--> statement-breakpoint
CREATE TABLE "job_tally_mark" (
	"id" smallint PRIMARY KEY NOT NULL,
	"counted_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "generation_attempt_open_idx" ON "generation_attempt" USING btree ("generation_id") WHERE "generation_attempt"."outcome" is null;