// Prints the Ant Design stylesheet for the build (`vite.config.ts` runs this while building): every style of the
// components the application uses, light and dark, for the site's default primary colour.
import { antdStylesheet } from "#app/styles/antd-stylesheet.ts";
import { siteDefaults } from "#config/site.ts";

process.stdout.write(antdStylesheet(siteDefaults.primaryColor));
