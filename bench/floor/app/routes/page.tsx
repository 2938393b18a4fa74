import { data, useParams } from "react-router";
import { elements, pages } from "../markup.ts";

export function loader({ params }: { params: { page?: string } }) {
  const page = pages[params.page ?? ""];
  if (!page) throw data(null, { status: 404 });
  return page.loaderData;
}

export default function Page() {
  return <>{elements(pages[useParams().page ?? ""]?.body ?? [])}</>;
}
