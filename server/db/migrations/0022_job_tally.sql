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
