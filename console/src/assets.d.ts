/** A file the bundler copies beside the bundle: the import is its URL. */
declare module "*.csv" {
  const url: string;
  export default url;
}
