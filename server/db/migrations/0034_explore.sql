-- Explore's trending order: likes on a log scale plus the age (ten times the likes make up for 12.5 hours). The epoch
-- of a timestamp does not depend on the session's time zone, so the function is immutable as generated columns need.
CREATE FUNCTION atelier_hot(likes integer, created timestamptz) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT log(greatest(likes, 1)::double precision) + extract(epoch FROM created)::double precision / 45000
$$;--> statement-breakpoint
-- The text search configuration of a prompt's language: stemming where PostgreSQL has it, words as written elsewhere.
CREATE FUNCTION atelier_search_config(lang text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE lang
    WHEN 'en' THEN 'pg_catalog.english'::regconfig
    WHEN 'de' THEN 'pg_catalog.german'::regconfig
    WHEN 'fr' THEN 'pg_catalog.french'::regconfig
    WHEN 'es' THEN 'pg_catalog.spanish'::regconfig
    WHEN 'pt' THEN 'pg_catalog.portuguese'::regconfig
    WHEN 'ru' THEN 'pg_catalog.russian'::regconfig
    WHEN 'tr' THEN 'pg_catalog.turkish'::regconfig
    ELSE 'pg_catalog.simple'::regconfig
  END
$$;--> statement-breakpoint
-- Chinese, Japanese and Korean runs as search terms: each character and each pair of neighbours (`pairs` false), or
-- only the pairs (`pairs` true, for a query, so every pair of it must be found); the rest of the text is left out.
CREATE FUNCTION atelier_cjk_terms(body text, pairs boolean) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  run text;
  terms text := '';
  n integer;
BEGIN
  FOR run IN SELECT m[1] FROM regexp_matches(body, '([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+)', 'g') AS m LOOP
    n := length(run);
    FOR i IN 1..n LOOP
      IF NOT pairs OR n = 1 THEN terms := terms || ' ' || substr(run, i, 1); END IF;
      IF i < n THEN terms := terms || ' ' || substr(run, i, 2); END IF;
    END LOOP;
  END LOOP;
  RETURN terms;
END
$$;--> statement-breakpoint
-- A prompt as explore searches it: stemmed in its language, every word as written, and its CJK characters and pairs.
CREATE FUNCTION atelier_prompt_search(lang text, prompt text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_tsvector(atelier_search_config(lang), prompt)
    || to_tsvector('pg_catalog.simple'::regconfig, prompt)
    || to_tsvector('pg_catalog.simple'::regconfig, atelier_cjk_terms(prompt, false))
$$;--> statement-breakpoint
-- What a visitor typed (web search syntax: words, "phrases", -words, or) as a query over `atelier_prompt_search`:
-- stemmed in the visitor's language, or word for word, with CJK text as its pairs of characters.
CREATE FUNCTION atelier_search_query(lang text, q text) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  run text;
  plain text := q;
BEGIN
  FOR run IN SELECT m[1] FROM regexp_matches(q, '([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+)', 'g') AS m LOOP
    plain := replace(plain, run, ' ' || atelier_cjk_terms(run, true) || ' ');
  END LOOP;
  RETURN websearch_to_tsquery(atelier_search_config(lang), q) || websearch_to_tsquery('pg_catalog.simple'::regconfig, plain);
END
$$;--> statement-breakpoint
CREATE TABLE "follow" (
	"follower_id" text NOT NULL,
	"creator_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "follow_follower_id_creator_id_pk" PRIMARY KEY("follower_id","creator_id"),
	CONSTRAINT "follow_not_self" CHECK ("follow"."follower_id" <> "follow"."creator_id")
);
--> statement-breakpoint
CREATE TABLE "generation_like" (
	"generation_id" uuid NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "generation_like_generation_id_user_id_pk" PRIMARY KEY("generation_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "user" ADD COLUMN "handle" text;--> statement-breakpoint
ALTER TABLE "user" ADD COLUMN "bio" text;--> statement-breakpoint
ALTER TABLE "user" ADD COLUMN "publish_by_default" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "remix_of_id" uuid;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "prompt_lang" text;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "like_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "remix_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "featured_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "hot" double precision GENERATED ALWAYS AS (atelier_hot(like_count, created_at)) STORED;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (atelier_prompt_search(prompt_lang, prompt)) STORED;--> statement-breakpoint
ALTER TABLE "follow" ADD CONSTRAINT "follow_follower_id_user_id_fk" FOREIGN KEY ("follower_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follow" ADD CONSTRAINT "follow_creator_id_user_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation_like" ADD CONSTRAINT "generation_like_generation_id_generation_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generation"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation_like" ADD CONSTRAINT "generation_like_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "follow_creator_idx" ON "follow" USING btree ("creator_id");--> statement-breakpoint
CREATE INDEX "generation_like_user_idx" ON "generation_like" USING btree ("user_id","created_at" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "generation" ADD CONSTRAINT "generation_remix_of_id_generation_id_fk" FOREIGN KEY ("remix_of_id") REFERENCES "public"."generation"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "generation_public_hot_idx" ON "generation" USING btree ("hot" DESC NULLS LAST,"id") WHERE "generation"."visibility" = 'public' and "generation"."status" = 'succeeded';--> statement-breakpoint
CREATE INDEX "generation_public_remixed_idx" ON "generation" USING btree ("remix_count" DESC NULLS LAST,"created_at" DESC NULLS LAST) WHERE "generation"."visibility" = 'public' and "generation"."status" = 'succeeded';--> statement-breakpoint
CREATE INDEX "generation_public_user_idx" ON "generation" USING btree ("user_id","created_at" DESC NULLS LAST) WHERE "generation"."visibility" = 'public' and "generation"."status" = 'succeeded';--> statement-breakpoint
CREATE INDEX "generation_public_search_idx" ON "generation" USING gin ("search") WHERE "generation"."visibility" = 'public' and "generation"."status" = 'succeeded';--> statement-breakpoint
CREATE INDEX "generation_featured_idx" ON "generation" USING btree ("featured_at" DESC NULLS LAST) WHERE "generation"."featured_at" is not null;--> statement-breakpoint
CREATE INDEX "generation_remix_of_idx" ON "generation" USING btree ("remix_of_id") WHERE "generation"."remix_of_id" is not null;--> statement-breakpoint
ALTER TABLE "user" ADD CONSTRAINT "user_handle_unique" UNIQUE("handle");