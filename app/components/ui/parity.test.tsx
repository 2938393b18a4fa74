import { describe, expect, it } from "vitest";
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { createRoutesStub } from "react-router";
import * as antd from "antd";
// The list of messages Ant Design's form item shows once mounted (it measures the item first, so a server render
// of the item has none).
import ErrorList from "antd/lib/form/ErrorList";
import { FormItemPrefixContext } from "antd/lib/form/context";
import { ApiOutlined, CheckCircleFilled as AntCheckCircleFilled, MenuOutlined } from "#app/components/antd-icons.ts";
import ApiOutlinedSvg from "@ant-design/icons-svg/es/asn/ApiOutlined";
import CheckCircleFilledSvg from "@ant-design/icons-svg/es/asn/CheckCircleFilled";
import MenuOutlinedSvg from "@ant-design/icons-svg/es/asn/MenuOutlined";
import { theme } from "#app/components/antd-theme.ts";
import { Button } from "#app/components/ui/button.tsx";
import { Alert, Card, Divider, Spin, Tag } from "#app/components/ui/display.tsx";
import { Checkbox, FormItem, Input, PasswordInput } from "#app/components/ui/form.tsx";
import { Icon } from "#app/components/ui/icon.tsx";
import { Progress } from "#app/components/ui/progress.tsx";
import { Result } from "#app/components/ui/result.tsx";
import { Segmented } from "#app/components/ui/segmented.tsx";
import { Paragraph, Text, Title } from "#app/components/ui/typography.tsx";

// The public pages draw Ant Design's look with their own small components and Ant Design's stylesheet: that only
// holds while they write the same markup. Each case renders both and compares the elements, their attributes and
// their classes (in any order).

/** Markup with each element's attributes, and the words of its class, sorted. */
function normalise(html: string): string {
  return html
    .replace(/ (?:name|id)="[^"]*"/g, "")
    .replace(/<([a-z0-9]+)((?: [a-zA-Z-]+(?:="[^"]*")?)*)(\/?)>/g, (_, tag: string, attrs: string, end: string) => {
      const list = [...attrs.matchAll(/ ([a-zA-Z-]+)(?:="([^"]*)")?/g)]
        // Focus order and a link's disabled flag are behaviour, not looks.
        .filter(
          ([, name]) =>
            !["tabindex", "aria-disabled", "data-discover", "aria-orientation", "aria-busy"].includes(name!),
        )
        .map(([, name, value]) =>
          name === "class"
            ? `class="${value!
                .split(/\s+/)
                // Ant Design adds this class once mounted in the browser; the server's markup has it from the start.
                .filter((c) => c && c !== "ant-btn-two-chinese-chars")
                .sort()
                .join(" ")}"`
            : `${name}="${value ?? ""}"`,
        )
        .sort();
      return `<${tag}${list.map((a) => ` ${a}`).join("")}${end}>`;
    });
}

const withAntd = (el: ReactElement) =>
  renderToStaticMarkup(<antd.ConfigProvider theme={theme("#1677ff", "light")}>{el}</antd.ConfigProvider>);

/** Form items as the sign-in forms lay them out. */
const inAntdForm = (el: ReactElement) =>
  withAntd(
    <antd.Form component={false} layout="vertical">
      {el}
    </antd.Form>,
  );

/** Components with links need a router around them. */
function withRouter(el: ReactElement): string {
  const Stub = createRoutesStub([{ path: "/", Component: () => el }]);
  return renderToStaticMarkup(<Stub initialEntries={["/"]} />);
}

const cases: [string, ReactElement, ReactElement][] = [
  [
    "primary large button",
    <antd.Button type="primary" size="large">
      Go
    </antd.Button>,
    <Button type="primary" size="large">
      Go
    </Button>,
  ],
  ["default button", <antd.Button>Go</antd.Button>, <Button>Go</Button>],
  ["two-character Chinese label", <antd.Button type="primary">注册</antd.Button>, <Button type="primary">注册</Button>],
  [
    "submit, block",
    <antd.Button type="primary" htmlType="submit" block>
      Go
    </antd.Button>,
    <Button type="primary" htmlType="submit" block>
      Go
    </Button>,
  ],
  [
    "loading",
    <antd.Button type="primary" loading>
      Go
    </antd.Button>,
    <Button type="primary" loading>
      Go
    </Button>,
  ],
  [
    "text icon button",
    <antd.Button type="text" icon={<MenuOutlined />} aria-label="Menu" />,
    <Button type="text" icon={<Icon icon={MenuOutlinedSvg} />} aria-label="Menu" />,
  ],
  [
    "borderless card",
    <antd.Card variant="borderless" className="x">
      <p>x</p>
    </antd.Card>,
    <Card variant="borderless" className="x">
      <p>x</p>
    </Card>,
  ],
  [
    "card with a title",
    <antd.Card title="T">
      <p>x</p>
    </antd.Card>,
    <Card title="T">
      <p>x</p>
    </Card>,
  ],
  [
    "heading",
    <antd.Typography.Title level={2} className="t">
      T
    </antd.Typography.Title>,
    <Title level={2} className="t">
      T
    </Title>,
  ],
  [
    "secondary paragraph",
    <antd.Typography.Paragraph type="secondary">T</antd.Typography.Paragraph>,
    <Paragraph type="secondary">T</Paragraph>,
  ],
  ["strong text", <antd.Typography.Text strong>T</antd.Typography.Text>, <Text strong>T</Text>],
  ["tag", <antd.Tag color="processing">T</antd.Tag>, <Tag color="processing">T</Tag>],
  ["info alert", <antd.Alert type="info" showIcon title="Hello" />, <Alert type="info" title="Hello" />],
  [
    "warning alert with a description",
    <antd.Alert type="warning" showIcon title="Hello" description="World" />,
    <Alert type="warning" title="Hello" description="World" />,
  ],
  ["error alert", <antd.Alert type="error" showIcon title="Hello" />, <Alert type="error" title="Hello" />],
  [
    "404 result",
    <antd.Result status="404" title="Nope" subTitle="sub" extra={<antd.Button type="primary">Home</antd.Button>} />,
    <Result status="404" title="Nope" subTitle="sub" extra={<Button type="primary">Home</Button>} />,
  ],
  [
    "success result with a body",
    <antd.Result status="success" title="Yes">
      <p>c</p>
    </antd.Result>,
    <Result status="success" title="Yes">
      <p>c</p>
    </Result>,
  ],
  ["warning result", <antd.Result status="warning" title="Hm" />, <Result status="warning" title="Hm" />],
  ["spinner", <antd.Spin />, <Spin />],
  ["divider with text", <antd.Divider plain>or</antd.Divider>, <Divider>or</Divider>],
  ["outlined icon", <ApiOutlined />, <Icon icon={ApiOutlinedSvg} />],
  [
    "large e-mail input with a value",
    <antd.Input type="email" size="large" autoComplete="email" maxLength={254} defaultValue="a@b.c" />,
    <Input type="email" size="large" autoComplete="email" maxLength={254} defaultValue="a@b.c" />,
  ],
  [
    "input with an error",
    <antd.Input status="error" defaultValue="" aria-invalid />,
    <Input status="error" defaultValue="" aria-invalid />,
  ],
  [
    "large password input",
    <antd.Input.Password size="large" autoComplete="current-password" maxLength={128} defaultValue="" />,
    <PasswordInput
      size="large"
      autoComplete="current-password"
      maxLength={128}
      defaultValue=""
      showLabel="Show"
      hideLabel="Hide"
    />,
  ],
  [
    "password input with an error",
    <antd.Input.Password status="error" defaultValue="" />,
    <PasswordInput status="error" defaultValue="" showLabel="Show" hideLabel="Hide" />,
  ],
  [
    "checkbox",
    <antd.Checkbox name="terms" value="on">
      I agree
    </antd.Checkbox>,
    <Checkbox name="terms" value="on">
      I agree
    </Checkbox>,
  ],
  [
    "ticked checkbox",
    <antd.Checkbox defaultChecked>I agree</antd.Checkbox>,
    <Checkbox defaultChecked>I agree</Checkbox>,
  ],
  [
    "small progress bar with a colour",
    <antd.Progress percent={50} showInfo={false} size="small" strokeColor="#faad14" aria-hidden />,
    <Progress percent={50} size="small" strokeColor="#faad14" aria-hidden />,
  ],
  ["full progress bar", <antd.Progress percent={100} showInfo={false} />, <Progress percent={100} />],
];

// Form items render inside Ant Design's form (its layout and context), ours on their own.
const formCases: [string, ReactElement, ReactElement][] = [
  [
    "form item with a label and an input",
    <antd.Form.Item label="E-mail" htmlFor="e">
      <antd.Input id="e" size="large" defaultValue="" />
    </antd.Form.Item>,
    <FormItem label="E-mail" htmlFor="e">
      <Input id="e" size="large" defaultValue="" />
    </FormItem>,
  ],
  [
    "required form item with extra text",
    <antd.Form.Item label="Password" htmlFor="p" required extra={<span>hint</span>}>
      <antd.Input.Password id="p" size="large" defaultValue="" />
    </antd.Form.Item>,
    <FormItem label="Password" htmlFor="p" required extra={<span>hint</span>}>
      <PasswordInput id="p" size="large" defaultValue="" showLabel="Show" hideLabel="Hide" />
    </FormItem>,
  ],
  [
    "form item with a checkbox",
    <antd.Form.Item>
      <antd.Checkbox name="terms" value="on">
        I agree
      </antd.Checkbox>
    </antd.Form.Item>,
    <FormItem>
      <Checkbox name="terms" value="on">
        I agree
      </Checkbox>
    </FormItem>,
  ],
  ["filled icon", <AntCheckCircleFilled />, <Icon icon={CheckCircleFilledSvg} />],
];

describe("the public pages' own components write Ant Design's markup", () => {
  it.each(cases)("%s", (_, antdElement, own) => {
    expect(normalise(renderToStaticMarkup(own))).toBe(normalise(withAntd(antdElement)));
  });

  it.each(formCases)("%s", (_, antdElement, own) => {
    expect(normalise(renderToStaticMarkup(own))).toBe(normalise(inAntdForm(antdElement)));
  });

  it("a form item with an error", () => {
    const ours = renderToStaticMarkup(
      <FormItem label="E-mail" htmlFor="e" error="Wrong" extra={<span>hint</span>}>
        <Input id="e" defaultValue="" />
      </FormItem>,
    );
    const theirs = inAntdForm(
      <antd.Form.Item label="E-mail" htmlFor="e" validateStatus="error" help="Wrong" extra={<span>hint</span>}>
        <antd.Input id="e" defaultValue="" />
      </antd.Form.Item>,
    );
    const message = withAntd(
      <FormItemPrefixContext.Provider value={{ prefixCls: "ant-form", status: "error" }}>
        <ErrorList help="Wrong" helpStatus="error" className="ant-form-item-explain-connected" />
      </FormItemPrefixContext.Provider>,
    );
    // Once mounted, Ant Design's item holds its message before the extra text, and an empty block that takes
    // back the item's bottom margin. The room for the message is an inline size measured in the browser (ours
    // written with the margin's variable), so sizes are left out here.
    const mounted = theirs
      .replace('<div class="ant-form-item-additional">', `$&${message}`)
      .replace(/<\/div>$/, '<div class="ant-form-item-margin-offset"></div></div>');
    const unsized = (html: string) => normalise(html.replace(/ style="[^"]*"/g, ""));
    expect(unsized(ours)).toBe(unsized(mounted));
    expect(ours).toContain('<div class="ant-form-item-explain-error">Wrong</div>');
  });

  it("a segmented control", () => {
    const options = [
      { value: "a", title: "A", label: <span>A</span> },
      { value: "b", title: "B", label: <span>B</span> },
    ];
    const ours = renderToStaticMarkup(
      <Segmented size="small" aria-label="Pick" value="b" onChange={() => {}} options={options} />,
    );
    const theirs = withAntd(<antd.Segmented size="small" aria-label="Pick" value="b" options={options} />);
    expect(normalise(ours)).toBe(normalise(theirs));
  });

  it("a link that looks like a button", () => {
    const ours = withRouter(
      <Button type="primary" size="large" href="/x">
        Go
      </Button>,
    );
    const theirs = withAntd(
      <antd.Button type="primary" size="large" href="/x">
        Go
      </antd.Button>,
    );
    expect(normalise(ours)).toBe(normalise(theirs));
  });
});
