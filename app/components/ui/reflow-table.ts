import type { TableColumnsType } from "antd";

/**
 * The class and columns of a table that becomes a list of cards on a phone (the `.table-reflow` rules in app.css):
 * each cell carries its column's title, which the card shows beside the value, so that no column (the actions
 * least of all) is pushed out of sight to the right.
 */
export const REFLOW_TABLE = "table-reflow";

export function reflowColumns<Row>(columns: TableColumnsType<Row>): TableColumnsType<Row> {
  return columns.map((column) => {
    const label = typeof column.title === "string" ? column.title : undefined;
    if (!label) return column;
    const own = column.onCell;
    return {
      ...column,
      onCell: (row: Row, index?: number) => ({ ...own?.(row, index), "data-label": label }),
    };
  });
}
