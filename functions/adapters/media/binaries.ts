/**
 * ffmpeg and ffprobe: FFMPEG_PATH / FFPROBE_PATH when set (the Lambda layer on AWS, Debian's
 * ffmpeg in the Fargate image, or any build a developer prefers), else the static binaries the
 * npm installer packages ship (local host and tests). The installer packages are dev
 * dependencies, so they are imported only when no path is configured, and with a specifier the
 * Lambda bundler does not follow.
 */
interface InstallerModule {
  default: { path: string };
}

const installers = { ffmpeg: '@ffmpeg-installer/ffmpeg', ffprobe: '@ffprobe-installer/ffprobe' } as const;

async function resolveBinary(tool: keyof typeof installers, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const specifier: string = installers[tool];
  try {
    const installer = (await import(specifier)) as InstallerModule;
    return installer.default.path;
  } catch (error) {
    throw new Error(`No ${tool} binary: set ${tool.toUpperCase()}_PATH, or install the dev dependency ${specifier}.`, { cause: error });
  }
}

export const resolveFfprobePath = (configured?: string): Promise<string> => resolveBinary('ffprobe', configured);
export const resolveFfmpegPath = (configured?: string): Promise<string> => resolveBinary('ffmpeg', configured);

/** A memoized resolver of the ffprobe path, for code that runs ffprobe many times. */
export function ffprobePath(configured?: string): () => Promise<string> {
  let path: Promise<string> | undefined;
  return () => {
    path ??= resolveFfprobePath(configured).catch((error: unknown) => {
      path = undefined;
      throw error;
    });
    return path;
  };
}
