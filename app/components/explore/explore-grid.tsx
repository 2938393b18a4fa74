import { ExploreCard, type ExploreCardItem } from "./explore-card.tsx";

/** Public results as a grid of columns (a masonry without scripts). */
export function ExploreGrid({
  items,
  signedIn,
  eager,
}: {
  items: ExploreCardItem[];
  signedIn: boolean;
  eager?: boolean;
}) {
  return (
    <ul className="explore-grid">
      {items.map((item, i) => (
        <li key={item.id}>
          <ExploreCard item={item} signedIn={signedIn} eager={eager && i < 4} />
        </li>
      ))}
    </ul>
  );
}
