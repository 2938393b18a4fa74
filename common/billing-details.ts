import { z } from "zod";

/**
 * What an account's invoices and receipts carry: the name and postal address, and a tax id, all sent to the account's
 * Stripe customer. Countries are ISO 3166-1 alpha-2 codes (their names come from the browser's and Node's `Intl`, in
 * the page's language); tax ids are those of Stripe's types an account here is likely to hold, each with the example
 * Stripe's own reference gives for its format.
 */
export const BILLING_COUNTRIES: readonly string[] = (
  "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY " +
  "BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK " +
  "FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR " +
  "IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK " +
  "ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM " +
  "PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF " +
  "TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW"
).split(" ");

export const TAX_ID_TYPES = {
  eu_vat: { region: "EU", example: "DE123456789" },
  gb_vat: { region: "GB", example: "GB123456789" },
  ch_vat: { region: "CH", example: "CHE-123.456.789 MWST" },
  no_vat: { region: "NO", example: "123456789MVA" },
  es_cif: { region: "ES", example: "A12345678" },
  us_ein: { region: "US", example: "12-3456789" },
  ca_bn: { region: "CA", example: "123456789" },
  mx_rfc: { region: "MX", example: "ABC010203AB9" },
  br_cnpj: { region: "BR", example: "01.234.456/5432-10" },
  br_cpf: { region: "BR", example: "123.456.789-87" },
  au_abn: { region: "AU", example: "12345678912" },
  nz_gst: { region: "NZ", example: "123456789" },
  jp_cn: { region: "JP", example: "1234567891234" },
  kr_brn: { region: "KR", example: "123-45-67890" },
  cn_tin: { region: "CN", example: "123456789012345678" },
  hk_br: { region: "HK", example: "12345678" },
  tw_vat: { region: "TW", example: "12345678" },
  sg_uen: { region: "SG", example: "123456789F" },
  in_gst: { region: "IN", example: "12ABCDE3456FGZH" },
  ae_trn: { region: "AE", example: "123456789012345" },
  sa_vat: { region: "SA", example: "123456789012345" },
  il_vat: { region: "IL", example: "000012345" },
  tr_tin: { region: "TR", example: "0123456789" },
  ru_inn: { region: "RU", example: "1234567891" },
  ua_vat: { region: "UA", example: "123456789" },
  za_vat: { region: "ZA", example: "4123456789" },
} as const satisfies Record<string, { region: string; example: string }>;
export type TaxIdType = keyof typeof TAX_ID_TYPES;
export const TAX_ID_TYPE_LIST = Object.keys(TAX_ID_TYPES) as TaxIdType[];

const line = z.string().trim().max(200);

/** The form's fields, checked the same on both sides: an address needs its country, a tax id its type and value. */
export const billingDetailsSchema = z
  .object({
    name: line,
    line1: line,
    line2: line,
    city: z.string().trim().max(100),
    postalCode: z.string().trim().max(20),
    state: z.string().trim().max(100),
    country: z.union([z.literal(""), z.string().refine((c) => BILLING_COUNTRIES.includes(c))]),
    taxIdType: z.union([z.literal(""), z.enum(TAX_ID_TYPE_LIST as [TaxIdType, ...TaxIdType[]])]),
    taxIdValue: z
      .string()
      .trim()
      .max(40)
      .regex(/^[\p{L}\p{N} .\-/]*$/u),
  })
  .refine((d) => d.country !== "" || [d.line1, d.line2, d.city, d.postalCode, d.state].every((v) => v === ""), {
    path: ["country"],
    message: "an address needs its country",
  })
  .refine((d) => (d.taxIdType === "") === (d.taxIdValue === ""), {
    path: ["taxIdValue"],
    message: "a tax id needs its type and its number",
  });
export type BillingDetailsInput = z.output<typeof billingDetailsSchema>;
export const BILLING_FIELDS = [
  "name",
  "line1",
  "line2",
  "city",
  "postalCode",
  "state",
  "country",
  "taxIdType",
  "taxIdValue",
] as const satisfies readonly (keyof BillingDetailsInput)[];
