import { describe, expect, it } from "vitest";
import { decimalAmount, formatDate, formatMoney, formatNumber, formatRelative, formatSeconds } from "#common/format.ts";

describe("formatting per locale", () => {
  it("formats numbers with the locale's separators", () => {
    expect(formatNumber("en", 1234567.5)).toBe("1,234,567.5");
    expect(formatNumber("de", 1234567.5)).toBe("1.234.567,5");
    expect(formatNumber("fr", 1234.5)).toBe("1\u202f234,5");
  });

  it("writes -0 as 0, as the page's data (JSON) brings it to the browser", () => {
    expect(formatNumber("en", -0)).toBe(formatNumber("en", JSON.parse(JSON.stringify(-0)) as number));
    expect(formatNumber("de", -0, { style: "percent" })).toBe("0\u00a0%");
    expect(formatMoney("en", -0, "usd")).toBe("$0.00");
    expect(formatNumber("en", -3)).toBe("-3");
  });

  it("formats money from minor units", () => {
    expect(formatMoney("en", 2000, "usd")).toBe("$20.00");
    expect(formatMoney("de", 7000, "EUR")).toBe("70,00\u00a0€");
    expect(formatMoney("ja", 500, "JPY")).toBe("￥500");
  });

  it("formats dates in UTC so server and browser agree", () => {
    const date = new Date("2026-03-04T05:06:00Z");
    expect(formatDate("en", date, { dateOnly: true })).toBe("Mar 4, 2026");
    expect(formatDate("ru", date, { dateOnly: true })).toBe("4 мар. 2026 г.");
    expect(formatDate("en", date)).toBe("Mar 4, 2026, 5:06 AM");
  });

  it("says how long ago or how soon in the largest fitting unit", () => {
    const now = new Date("2026-11-22T12:00:00Z");
    expect(formatRelative("en", new Date("2026-11-22T11:57:00Z"), now)).toBe("3 minutes ago");
    expect(formatRelative("en", new Date("2026-11-24T12:00:00Z"), now)).toBe("in 2 days");
    expect(formatRelative("de", new Date("2026-11-21T12:00:00Z"), now)).toBe("gestern");
    expect(formatRelative("en", now, now)).toBe("now");
  });

  it("writes durations in seconds, or minutes above one", () => {
    expect(formatSeconds("en", 8)).toBe("8 sec");
    expect(formatSeconds("en", 12.34)).toBe("12 sec");
    expect(formatSeconds("en", 90)).toBe("1.5 min");
    expect(formatSeconds("ru", 90)).toBe("1,5 мин");
  });

  it("writes an amount in minor units as a decimal in major units, as the currency counts them", () => {
    expect(decimalAmount(2000, "usd")).toBe("20.00");
    expect(decimalAmount(500, "JPY")).toBe("500");
  });
});
