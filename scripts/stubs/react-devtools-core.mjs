// Stand-in for react-devtools-core (not installed): Ink imports it only when DEV=true and the
// package resolves, but a bundler follows the static import. Connecting does nothing.
export default { initialize() {}, connectToDevTools() {} };
