/** swagger-ui-dist ships no types; this is the one function the docs page uses. */
declare module 'swagger-ui-dist/absolute-path.js' {
  /** The folder of the installed Swagger UI assets. */
  const getAbsoluteFSPath: () => string;
  export default getAbsoluteFSPath;
}
