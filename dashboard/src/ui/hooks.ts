import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiProblem } from '../api/client';

export interface Loaded<T> {
  data: T | undefined;
  problem: ApiProblem | undefined;
  loading: boolean;
  reload: () => void;
}

export function asProblem(error: unknown): ApiProblem {
  return error instanceof ApiProblem ? error : new ApiProblem(0, { message: 'Something went wrong in the page', details: error instanceof Error ? error.message : String(error) });
}

/**
 * Loads `load()` when `deps` change; an answer to an older request never overwrites a newer one. The last
 * data stays on screen while a reload runs, so refreshing never blanks the page.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; problem?: ApiProblem; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const id = (latest.current += 1);
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => id === latest.current && setState({ data, loading: false }),
      (error: unknown) => id === latest.current && setState((s) => ({ data: s.data, problem: asProblem(error), loading: false })),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, problem: state.problem, loading: state.loading, reload };
}

/** Calls `tick` every `ms` while `active`; stops when the component goes away. */
export function usePoll(active: boolean, ms: number, tick: () => void): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => saved.current(), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
}

/**
 * An action's state: running (buttons disabled), its problem, its confirmation text. `run` starts the action
 * and returns at once (an event handler's shape): whatever the action throws becomes `problem`.
 */
export function useAction() {
  const [running, setRunning] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const run = useCallback((action: () => Promise<string | undefined | void>): void => {
    const attempt = async () => {
      setRunning(true);
      setProblem(undefined);
      setNotice(undefined);
      try {
        const message = await action();
        if (message) setNotice(message);
      } catch (error) {
        setProblem(asProblem(error));
      } finally {
        setRunning(false);
      }
    };
    // Never rejects: the catch above takes every failure.
    void attempt();
  }, []);
  return { running, problem, notice, run, setNotice };
}
