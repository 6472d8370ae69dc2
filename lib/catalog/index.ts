export * from "./components";
export * from "./images";
export * from "./releases";
