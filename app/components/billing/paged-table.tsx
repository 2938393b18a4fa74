import { Table, type TableColumnsType } from "antd";
import { Link, useSearchParams } from "react-router";
import { REFLOW_TABLE, reflowColumns } from "#app/components/ui/reflow-table.ts";

/** Page links that work before the scripts load: each page number is a real link. */
/** What a return from Stripe adds to the orders page's address, said once: a reload or another page does not repeat it. */
export const ONE_SHOT_PARAMS = ["subscribed", "changed", "topup"] as const;

function pageLinks(search: URLSearchParams, param: string) {
  return (page: number, type: string, original: React.ReactNode) => {
    if (type !== "page" && type !== "prev" && type !== "next") return original;
    const next = new URLSearchParams(search);
    for (const key of ONE_SHOT_PARAMS) next.delete(key);
    next.set(param, String(page));
    return (
      <Link to={`?${next.toString()}`} preventScrollReset>
        {type === "page" ? page : original}
      </Link>
    );
  };
}

export interface Paged<Row> {
  rows: Row[];
  total: number;
  page: number;
  pageSize: number;
}

/** A short list shown whole, as one page. */
export const allRows = <Row,>(rows: Row[]): Paged<Row> => ({
  rows,
  total: rows.length,
  page: 1,
  pageSize: Math.max(rows.length, 1),
});

/**
 * A table of one page of rows from the server, its pages chosen by a search parameter (`param`); cards on a phone.
 */
export function PagedTable<Row extends { id: string | number }>({
  paged,
  param,
  columns,
  empty,
}: {
  paged: Paged<Row>;
  param: string;
  columns: TableColumnsType<Row>;
  empty: string;
}) {
  const [search] = useSearchParams();
  return (
    <Table<Row>
      className={REFLOW_TABLE}
      rowKey="id"
      size="middle"
      scroll={{ x: "max-content" }}
      dataSource={paged.rows}
      locale={{ emptyText: empty }}
      pagination={
        paged.total > paged.pageSize && {
          current: paged.page,
          pageSize: paged.pageSize,
          total: paged.total,
          showSizeChanger: false,
          itemRender: pageLinks(search, param),
        }
      }
      columns={reflowColumns(columns)}
    />
  );
}
