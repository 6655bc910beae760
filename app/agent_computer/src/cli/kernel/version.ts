// Read only for --version: the bundler inlines the number at build time, so no file is read at run time then.
import { version } from "../../../../../package.json";

export const VERSION: string = version;
