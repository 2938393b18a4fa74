import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { hrefIn } from "#common/locales.ts";

/** Says the form holds a public result's settings, to remix: what is made links back to it. */
export function RemixNotice({ source }: { source: { id: string; prompt: string } }) {
  const { t } = useTranslation("studio");
  const { pathname } = useLocation();
  const prompt = source.prompt.length > 80 ? `${source.prompt.slice(0, 77)}…` : source.prompt;
  return (
    <p className="studio-remix" data-testid="remixing">
      {t("form.remixing")}{" "}
      <Link to={hrefIn(pathname, `/share/${source.id}`)} dir="auto">
        {prompt}
      </Link>
    </p>
  );
}
