import { data } from "react-router";

/** Any path no page claims: 404, shown by the layout's error boundary inside the site's frame. */
export function loader() {
  throw data(null, { status: 404 });
}

export default function NotFoundRoute() {
  return null;
}
