import { transitionCommand } from "./task-transitions.ts";

export default transitionCommand("cancel");
