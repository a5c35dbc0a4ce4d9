// The task pages live in web/src/tasks/; the Space layout routes to them by these names.
export { TaskBoardPage } from '../tasks/board';
export { TaskPage } from '../tasks/task-page';
